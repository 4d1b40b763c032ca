import { copy } from '../../copy.ts';

/** Footer links: Privacy Notice and a Contact support mail link. */
export function AccountFooter({ supportEmail }: { supportEmail: string }) {
  return (
    <>
      <a href="/privacy" target="_blank" rel="noreferrer">
        {copy.common.privacyNotice}
      </a>
      <a href={`mailto:${supportEmail}`}>{copy.common.contactSupport}</a>
    </>
  );
}
