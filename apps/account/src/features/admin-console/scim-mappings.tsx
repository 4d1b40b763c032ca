import { useEffect, useId, useRef, useState } from 'react';
import { FieldErrors } from '../../shared/ui/field-errors.tsx';
import { SCIM_ROLES, consoleApi, type Me, type ScimRole, type ScimSettings } from './console-client.ts';
import { consoleCopy } from './copy.ts';
import {
  decideGroupMappings,
  decideMappingsRefusal,
  mappingRows,
  selectScopeGroupChoices,
  type MappingRow,
} from './decide-scim.ts';
import { scimFailureMessage } from './scim-notice.tsx';
import { NoticeLine, type Notice } from './token-list.tsx';

const t = consoleCopy.scim.mappings;
const ROLE_CHOICES: readonly (ScimRole | 'none')[] = [...SCIM_ROLES, 'none'];
const emptyRow = (): MappingRow => ({ group: '', role: 'user', scopeGroups: [], more: '' });

/** The group mapping editor: directory group → role and scope groups, one row per group. */
export function ScimMappings({
  me,
  settings,
  onSaved,
}: {
  me: Me;
  settings: ScimSettings;
  onSaved: () => void;
}) {
  // null until the admin edits: the saved mappings are shown.
  const [edited, setEdited] = useState<MappingRow[] | null>(null);
  const [rowErrors, setRowErrors] = useState<string[][]>([]);
  const [notice, setNotice] = useState<Notice>(null);
  const [busy, setBusy] = useState(false);
  const addRef = useRef<HTMLButtonElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  // The row whose group field takes the focus once rendered (a row just added, the first invalid one).
  const [focusRow, setFocusRow] = useState<{ index: number } | null>(null);
  const rows = edited ?? mappingRows(settings.groupMappings);
  const choices = selectScopeGroupChoices(settings);
  useEffect(() => {
    if (focusRow)
      formRef.current?.querySelectorAll<HTMLInputElement>('input[data-group]')[focusRow.index]?.focus();
  }, [focusRow]);

  function change(index: number, row: MappingRow) {
    setEdited(rows.map((r, i) => (i === index ? row : r)));
  }

  function add() {
    setEdited([...rows, emptyRow()]);
    setRowErrors([...rows.map((_, i) => rowErrors[i] ?? []), []]);
    setFocusRow({ index: rows.length });
  }

  function remove(index: number) {
    setEdited(rows.filter((_, i) => i !== index));
    setRowErrors(rowErrors.filter((_, i) => i !== index));
    // The row and its button go: the focus moves to "Add a mapping".
    addRef.current?.focus();
  }

  async function save() {
    const decision = decideGroupMappings(rows);
    if (!decision.ok) {
      setRowErrors(decision.rowErrors);
      setNotice({ error: decision.error });
      setFocusRow({
        index: Math.max(
          0,
          decision.rowErrors.findIndex((e) => e.length > 0),
        ),
      });
      return;
    }
    setRowErrors([]);
    setBusy(true);
    try {
      await consoleApi.setScimSettings(me.organisationId, decision.body);
      setEdited(null);
      setNotice({ text: t.saved });
      onSaved();
    } catch (error) {
      const refusal = decideMappingsRefusal(scimFailureMessage(error), rows.length);
      setRowErrors(refusal.rowErrors);
      setNotice({ error: refusal.error });
      const first = refusal.rowErrors.findIndex((e) => e.length > 0);
      if (first >= 0) setFocusRow({ index: first });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      ref={formRef}
      aria-labelledby="scim-mappings-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h3 id="scim-mappings-title">{t.heading}</h3>
      <p>{t.intro}</p>
      {rows.length === 0 ? <p>{t.empty}</p> : null}
      {rows.map((row, index) => (
        <MappingFieldset
          key={index}
          index={index}
          row={row}
          choices={choices}
          errors={rowErrors[index] ?? []}
          onChange={(next) => change(index, next)}
          onRemove={() => remove(index)}
        />
      ))}
      <div className="row wrap">
        <button type="button" className="button secondary" ref={addRef} onClick={add}>
          {t.add}
        </button>
        <button type="submit" className="button" disabled={busy}>
          {t.save}
        </button>
      </div>
      <NoticeLine notice={notice} />
    </form>
  );
}

function MappingFieldset(props: {
  index: number;
  row: MappingRow;
  choices: string[];
  errors: string[];
  onChange: (row: MappingRow) => void;
  onRemove: () => void;
}) {
  const { index, row, choices, errors, onChange } = props;
  const id = useId();
  const n = index + 1;
  const errorId = `${id}-errors`;
  const invalid = errors.length > 0 || undefined;
  const describedBy = invalid ? errorId : undefined;
  const toggle = (group: string, on: boolean) =>
    onChange({
      ...row,
      scopeGroups: on ? [...row.scopeGroups, group] : row.scopeGroups.filter((g) => g !== group),
    });
  return (
    <fieldset className="console-mapping" aria-describedby={describedBy}>
      <legend>{t.rowLabel(n)}</legend>
      <FieldErrors id={errorId} errors={errors} />
      <div className="field">
        <label htmlFor={`${id}-group`}>{t.group}</label>
        <input
          id={`${id}-group`}
          data-group=""
          value={row.group}
          maxLength={512}
          aria-invalid={invalid}
          aria-describedby={`${id}-group-hint${describedBy ? ` ${describedBy}` : ''}`}
          onChange={(e) => onChange({ ...row, group: e.target.value })}
        />
        <p id={`${id}-group-hint`} className="hint">
          {t.groupHint}
        </p>
      </div>
      <div className="field">
        <label htmlFor={`${id}-role`}>{t.role}</label>
        <select
          id={`${id}-role`}
          value={row.role}
          onChange={(e) => onChange({ ...row, role: e.target.value as MappingRow['role'] })}
        >
          {ROLE_CHOICES.map((r) => (
            <option key={r} value={r}>
              {t.roles[r]}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="console-choices">
        <legend>{t.scopeGroups}</legend>
        {choices.length === 0 ? <p className="hint">{t.noScopeGroups}</p> : null}
        {choices.map((group) => (
          <label key={group} className="checkbox">
            <input
              type="checkbox"
              checked={row.scopeGroups.includes(group)}
              onChange={(e) => toggle(group, e.target.checked)}
            />{' '}
            {group}
          </label>
        ))}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-more`}>{t.moreScopeGroups}</label>
        <input
          id={`${id}-more`}
          value={row.more}
          maxLength={2000}
          onChange={(e) => onChange({ ...row, more: e.target.value })}
        />
      </div>
      <button type="button" className="button secondary" onClick={props.onRemove}>
        {t.remove(n)}
      </button>
    </fieldset>
  );
}
