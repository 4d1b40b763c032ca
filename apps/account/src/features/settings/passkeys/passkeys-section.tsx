import type { FormEvent, ReactNode } from 'react';
import { useState } from 'react';
import { copy } from '../../../copy.ts';
import { FormErrors } from '../../../shared/ui/form-errors.tsx';
import { TextField } from '../../../shared/ui/text-field.tsx';
import { decidePasskeyName } from './decide-passkey-name.ts';
import type { PasskeyRow, PasskeysView } from './select-passkeys.ts';

/** What the section needs from the account page's model. */
export interface PasskeysModel {
  busy: boolean;
  formErrors: string[];
  notice: string | null;
  addPasskey(name: string, options: unknown): Promise<void>;
  renamePasskey(id: string, name: string): Promise<void>;
  removePasskey(id: string): Promise<void>;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : copy.passkeys.neverUsed);

function RenameForm({ row, model, done }: { row: PasskeyRow; model: PasskeysModel; done: () => void }) {
  const [name, setName] = useState(row.name);
  const [error, setError] = useState<string[]>([]);
  function submit(event: FormEvent) {
    event.preventDefault();
    const decided = decidePasskeyName(name);
    if ('error' in decided) return setError([decided.error]);
    void model.renamePasskey(row.id, decided.name).then(done);
  }
  return (
    <form onSubmit={submit} aria-busy={model.busy}>
      <TextField
        label={copy.passkeys.renameTo(row.name)}
        value={name}
        errors={error}
        autoFocus
        maxLength={64}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" className="button" disabled={model.busy}>
        {copy.passkeys.saveName}
      </button>{' '}
      <button type="button" className="button secondary" onClick={done}>
        {copy.passkeys.cancel}
      </button>
    </form>
  );
}

function PasskeyItem({ row, model }: { row: PasskeyRow; model: PasskeysModel }) {
  const [renaming, setRenaming] = useState(false);
  return (
    <li data-testid="passkey">
      <strong>{row.name}</strong>
      <dl>
        <dt>{copy.passkeys.addedOn}</dt>
        <dd>{when(row.addedAt)}</dd>
        <dt>{copy.passkeys.lastUsed}</dt>
        <dd>{when(row.lastUsedAt)}</dd>
      </dl>
      {renaming ? (
        <RenameForm row={row} model={model} done={() => setRenaming(false)} />
      ) : (
        <>
          <button
            type="button"
            className="button secondary"
            disabled={model.busy}
            aria-label={copy.passkeys.renameLabel(row.name)}
            onClick={() => setRenaming(true)}
          >
            {copy.passkeys.rename}
          </button>{' '}
          <button
            type="button"
            className="button secondary"
            disabled={model.busy}
            aria-label={copy.passkeys.removeLabel(row.name)}
            onClick={() => void model.removePasskey(row.id)}
          >
            {copy.passkeys.remove}
          </button>
        </>
      )}
    </li>
  );
}

/** The account page's Passkeys section: the list with names and last use, add, rename, remove. */
export function PasskeysSection({
  view,
  model,
  frame,
}: {
  view: PasskeysView;
  model: PasskeysModel;
  frame: (children: ReactNode) => ReactNode;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string[]>([]);
  if (!view.offered) return null;
  function add(event: FormEvent) {
    event.preventDefault();
    const decided = decidePasskeyName(name);
    if ('error' in decided) return setError([decided.error]);
    setError([]);
    void model.addPasskey(decided.name, view.createOptions).then(() => setName(''));
  }
  return frame(
    <>
      <p className="muted">{copy.passkeys.explain}</p>
      {view.passkeys.length === 0 ? (
        <p data-testid="passkeys-none">{copy.passkeys.none}</p>
      ) : (
        <ul className="sessions">
          {view.passkeys.map((row) => (
            <PasskeyItem key={row.id} row={row} model={model} />
          ))}
        </ul>
      )}
      {view.createOptions !== null && (
        <form onSubmit={add} aria-busy={model.busy}>
          <TextField
            label={copy.passkeys.name}
            value={name}
            errors={error}
            maxLength={64}
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="button" disabled={model.busy}>
            {copy.passkeys.add}
          </button>
        </form>
      )}
      <FormErrors messages={model.formErrors} />
      {model.notice && (
        <p className="notice" role="status">
          {model.notice}
        </p>
      )}
    </>,
  );
}
