import { copy } from '../../copy.ts';
import { paths } from '../config/paths.ts';
import { DocumentLink } from './document-link.tsx';

/** Footer links: Privacy Notice and a Contact support mail link. */
export function AccountFooter({ supportEmail }: { supportEmail: string }) {
  return (
    <>
      <DocumentLink href={paths.privacy}>{copy.common.privacyNotice}</DocumentLink>
      <a href={`mailto:${supportEmail}`}>{copy.common.contactSupport}</a>
    </>
  );
}
