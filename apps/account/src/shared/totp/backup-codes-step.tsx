import { copy } from '../../copy.ts';
import { Card } from '../ui/card.tsx';
import { BackupCodesList } from './backup-codes-list.tsx';

/** "Save your backup codes": the new codes, copy and download, then Continue (which confirms them). */
export function BackupCodesStep({
  codes,
  busy = false,
  onContinue,
}: {
  codes: string[];
  busy?: boolean;
  onContinue: () => void | Promise<void>;
}) {
  return (
    <Card title={copy.backupCodes.title}>
      <p>{copy.backupCodes.explain}</p>
      <div data-testid="backup-codes">
        <BackupCodesList codes={codes} />
      </div>
      <button type="button" className="button" disabled={busy} onClick={() => void onContinue()}>
        {copy.backupCodes.saved}
      </button>
    </Card>
  );
}
