import { useState } from 'react';
import { copy } from '../../copy.ts';

/** A fresh set of backup codes with Copy and Download: shown once, after a TOTP set-up or in settings. */
export function BackupCodesList({ codes }: { codes: string[] }) {
  const [copied, setCopied] = useState(false);
  const text = codes.join('\n');
  return (
    <>
      <ul className="codes" aria-label={copy.backupCodes.listLabel} data-testid="backup-codes-list">
        {codes.map((c) => (
          <li key={c}>
            <code>{c}</code>
          </li>
        ))}
      </ul>
      <div className="row wrap">
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
    </>
  );
}
