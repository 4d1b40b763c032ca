import type { FormEvent, ReactNode } from 'react';
import { useState } from 'react';
import { FormErrors } from '../../../shared/ui/form-errors.tsx';
import { TextField } from '../../../shared/ui/text-field.tsx';
import { decideKeyName } from './decide-key-name.ts';
import type { KeyCopy, KeyRow, KeysView } from './select-keys.ts';
import { formatDateTime } from '../../../i18n/format.ts';
import { copy } from '../../../copy.ts';

/** What the section needs from the account page's model, for one kind of key. */
export interface KeysModel {
  busy: boolean;
  formErrors: string[];
  notice: string | null;
  add(name: string, options: unknown): Promise<void>;
  rename(id: string, name: string): Promise<void>;
  remove(id: string): Promise<void>;
}

interface KeyProps {
  row: KeyRow;
  model: KeysModel;
  text: KeyCopy;
}

function RenameForm({ row, model, text, done }: KeyProps & { done: () => void }) {
  const [name, setName] = useState(row.name);
  const [error, setError] = useState<string[]>([]);
  function submit(event: FormEvent) {
    event.preventDefault();
    const decided = decideKeyName(name, text);
    if ('error' in decided) return setError([decided.error]);
    void model.rename(row.id, decided.name).then(done);
  }
  return (
    <form onSubmit={submit} aria-busy={model.busy}>
      <TextField
        label={copy.keys.renameTo(row.name)}
        value={name}
        errors={error}
        autoFocus
        maxLength={64}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" className="button" disabled={model.busy}>
        {copy.keys.saveName}
      </button>{' '}
      <button type="button" className="button secondary" onClick={done}>
        {copy.keys.cancel}
      </button>
    </form>
  );
}

function KeyItem({ row, model, text, testId }: KeyProps & { testId: string }) {
  const [renaming, setRenaming] = useState(false);
  const when = (iso: string | null) => (iso ? formatDateTime(iso) : copy.keys.neverUsed);
  return (
    <li data-testid={testId}>
      <strong>{row.name}</strong>
      <dl>
        <dt>{copy.keys.addedOn}</dt>
        <dd>{when(row.addedAt)}</dd>
        <dt>{copy.keys.lastUsed}</dt>
        <dd>{when(row.lastUsedAt)}</dd>
      </dl>
      {renaming ? (
        <RenameForm row={row} model={model} text={text} done={() => setRenaming(false)} />
      ) : (
        <>
          <button
            type="button"
            className="button secondary"
            disabled={model.busy}
            aria-label={text.renameLabel(row.name)}
            onClick={() => setRenaming(true)}
          >
            {copy.keys.rename}
          </button>{' '}
          <button
            type="button"
            className="button secondary"
            disabled={model.busy}
            aria-label={text.removeLabel(row.name)}
            onClick={() => void model.remove(row.id)}
          >
            {copy.keys.remove}
          </button>
        </>
      )}
    </li>
  );
}

/**
 * One kind of key on the account page (the Passkeys section; the security keys of the Two-factor
 * section): the list with names and last use, add (with a name), rename, remove. `testId` names each
 * item, and `<testId>s-none` the empty list.
 */
export function KeysSection({
  view,
  model,
  text,
  testId,
  frame,
}: {
  view: KeysView;
  model: KeysModel;
  text: KeyCopy;
  testId: string;
  frame: (children: ReactNode) => ReactNode;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string[]>([]);
  if (!view.offered) return null;
  function add(event: FormEvent) {
    event.preventDefault();
    const decided = decideKeyName(name, text);
    if ('error' in decided) return setError([decided.error]);
    setError([]);
    void model.add(decided.name, view.createOptions).then(() => setName(''));
  }
  return frame(
    <>
      <p className="muted">{text.explain}</p>
      {view.keys.length === 0 ? (
        <p data-testid={`${testId}s-none`}>{text.none}</p>
      ) : (
        <ul className="sessions">
          {view.keys.map((row) => (
            <KeyItem key={row.id} row={row} model={model} text={text} testId={testId} />
          ))}
        </ul>
      )}
      {view.createOptions !== null && (
        <form onSubmit={add} aria-busy={model.busy}>
          <TextField
            label={text.name}
            value={name}
            errors={error}
            maxLength={64}
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="button" disabled={model.busy}>
            {text.add}
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
