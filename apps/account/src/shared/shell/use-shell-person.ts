import { useEffect, useState } from 'react';
import { getConfig } from '../config/env.ts';
import { tryDecodeJwtPayload } from '../oauth2/jwt.ts';
import { readToken } from '../oauth2/token-lifecycle.ts';
import { getMyAccount, type MyAccount } from '../users-client/users-client.ts';
import { selectShellPerson, type ShellPerson } from './select-shell-person.ts';

/**
 * The header's person: the stored token's claims at once, the organisation's name once the user
 * service answers `/me/account` (asked with the session cookie, or the token for a Microsoft 365
 * person, who has no identity session). A failed answer leaves the organisation out.
 */
export function useShellPerson(): ShellPerson | null {
  const [claims] = useState(() => tryDecodeJwtPayload(readToken()?.accessToken));
  const [account, setAccount] = useState<MyAccount | null>(null);
  useEffect(() => {
    let live = true;
    const bearer = claims?.ext?.user?.authenticationMode === 'm365' ? readToken()?.accessToken : undefined;
    getMyAccount(getConfig().usersUrl, bearer).then(
      (value) => live && setAccount(value),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [claims]);
  return selectShellPerson(claims, account);
}
