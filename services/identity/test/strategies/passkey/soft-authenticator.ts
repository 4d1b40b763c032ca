import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

// A software WebAuthn authenticator for tests: P-256 keys from node:crypto, authenticator data and
// client data built by hand, CBOR written with the library's encoder. It answers the options the
// identity service puts in its flows exactly as a browser with a platform authenticator would
// (attestation `none`), and can be told to lie (another origin or relying party, a wrong signature).

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();
const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

interface Key {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  rpId: string;
  counter: number;
}

export interface Options {
  origin?: string;
  rpId?: string;
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly keys: Key[] = [];
  readonly defaults: { origin: string; rpId: string };
  constructor(
    defaults: { origin: string; rpId: string } = { origin: 'http://localhost:4000', rpId: 'localhost' },
  ) {
    this.defaults = defaults;
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Uint8Array) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin: string) {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /** Answers `navigator.credentials.create()` options (`publicKey`), keeping the new key. */
  create(publicKey: { challenge: string; user: { id: string }; rp: { id?: string } }, o: Options = {}) {
    const origin = o.origin ?? this.defaults.origin;
    const rpId = o.rpId ?? publicKey.rp.id ?? this.defaults.rpId;
    const { privateKey, publicKey: pub } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = pub.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const id = randomBytes(16);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), len, id, isoCBOR.encode(cose)]);
    const flags = 0x01 | (o.userVerified === false ? 0 : 0x04) | 0x40;
    const authData = this.authData(rpId, flags, 0, attested);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    this.keys.push({ id, privateKey, userHandle: publicKey.user.id, rpId, counter: 0 });
    return {
      id: b64u(id),
      rawId: b64u(id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', publicKey.challenge, origin)),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /**
   * Answers `navigator.credentials.get()` options with `key` (default: the newest). Its signature
   * counter goes up by one, unless `counter` is given: the value a clone of the key replays, or 0 for
   * an authenticator that does not count.
   */
  get(
    publicKey: { challenge: string; rpId?: string },
    o: Options & { key?: Key; forge?: boolean; counter?: number } = {},
  ) {
    const key = o.key ?? this.keys[this.keys.length - 1]!;
    if (o.counter === undefined) key.counter += 1;
    const rpId = o.rpId ?? publicKey.rpId ?? key.rpId;
    const flags = 0x01 | (o.userVerified === false ? 0 : 0x04);
    const authData = this.authData(rpId, flags, o.counter ?? key.counter);
    const clientData = this.clientData('webauthn.get', publicKey.challenge, o.origin ?? this.defaults.origin);
    const signed = Buffer.concat([authData, sha256(clientData)]);
    const signature = sign(
      'sha256',
      o.forge ? Buffer.concat([signed, Buffer.from([1])]) : signed,
      key.privateKey,
    );
    return {
      id: b64u(key.id),
      rawId: b64u(key.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64u(clientData),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle: key.userHandle,
      },
    };
  }
}
