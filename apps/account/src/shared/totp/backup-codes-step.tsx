import { useState } from 'react';
import { copy } from '../../copy.ts';
import { Card } from '../ui/card.tsx';

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
  const [copied, setCopied] = useState(false);
  const text = codes.join('\n');
  return (
    <Card title={copy.backupCodes.title}>
      <p>{copy.backupCodes.explain}</p>
      <ul className="codes" aria-label={copy.backupCodes.listLabel} data-testid="backup-codes">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="row">
        <button
          type="button"
          className="button secondary"
          onClick={() => void navigator.clipboard?.writeText(text).then(() => setCopied(true))}
        >
          {copied ? copy.backupCodes.copied : copy.backupCodes.copy}
        </button>
        <a
          className="button secondary"
          download="backup-codes.txt"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text + '\n')}`}
        >
          {copy.backupCodes.download}
        </a>
      </div>
      <button type="button" className="button" disabled={busy} onClick={() => void onContinue()}>
        {copy.backupCodes.saved}
      </button>
    </Card>
  );
}
