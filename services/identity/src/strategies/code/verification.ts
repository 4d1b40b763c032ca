import { renderVerificationCode } from '@acme/mail';
import { messages } from '../../ui/messages.ts';
import { codeStrategy } from './strategy.ts';

/** Verification by code: a correct code marks the address verified. */
export const verificationCode = codeStrategy<{ id: string }>({
  isSendRequest: (_flow, input) => input.code === undefined,
  codeLabel: messages.verificationCode,
  codeSent: messages.verificationCodeSent,
  invalidCode: messages.verificationInvalidCode,
  findAddress: (db, email) =>
    db
      .selectFrom('identity_verifiable_addresses')
      .select(['id'])
      .where('value', '=', email)
      .where('via', '=', 'email')
      .executeTakeFirst(),
  sentInternal: (address) => ({ address_id: address?.id ?? null }),
  beforeMail: async (trx, address, now) => {
    await trx
      .updateTable('identity_verifiable_addresses')
      .set({ status: 'sent', updated_at: now })
      .where('id', '=', address.id)
      .where('verified', '=', false)
      .execute();
  },
  renderMail: renderVerificationCode,
  targetKey: 'address_id',
  succeed: async (_flow, addressId, { now }) => ({
    type: 'success',
    async commit(trx) {
      await trx
        .updateTable('identity_verifiable_addresses')
        .set({ verified: true, status: 'completed', verified_at: now, updated_at: now })
        .where('id', '=', addressId)
        .execute();
    },
  }),
});
