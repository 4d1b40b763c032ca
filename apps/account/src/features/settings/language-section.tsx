import { useState, type FormEvent, type ReactNode } from 'react';
import { Label, Radio, RadioGroup } from 'react-aria-components';
import { isLocale, LOCALES, type Locale } from '@acme/i18n';
import { copy } from '../../copy.ts';
import { currentLocale } from '../../i18n/locale.ts';
import { FormErrors } from '../../shared/ui/form-errors.tsx';

/** What the Language section needs of the account page's model. */
export interface LanguageModel {
  busy: boolean;
  errors: { language: { formErrors: string[] } };
  saveLocale: (locale: Locale) => Promise<void>;
}

/**
 * The person's language: saved in their identity (`traits.locale`, with every other trait kept), so
 * their screens and mails follow it on every device; the page switches to it at once.
 */
export function LanguageSection({
  model,
  frame,
}: {
  model: LanguageModel;
  frame: (children: ReactNode) => ReactNode;
}) {
  const [chosen, setChosen] = useState<Locale>(currentLocale());
  function submit(event: FormEvent) {
    event.preventDefault();
    void model.saveLocale(chosen);
  }
  return frame(
    <form onSubmit={submit} aria-busy={model.busy}>
      <RadioGroup
        className="language-choice"
        value={chosen}
        onChange={(value) => isLocale(value) && setChosen(value)}
      >
        <Label>{copy.settings.languageExplain}</Label>
        {LOCALES.map((locale) => (
          <Radio key={locale} value={locale} className="language-option">
            <span lang={locale}>{copy.settings.languageNames[locale]}</span>
          </Radio>
        ))}
      </RadioGroup>
      <FormErrors messages={model.errors.language.formErrors} />
      <button type="submit" className="button" disabled={model.busy}>
        {copy.settings.saveLanguage}
      </button>
    </form>,
  );
}
