import type { Ref } from 'react';
import { copyText, ShownOnce, type Notice } from '../token-list.tsx';
import type { ShownSecret } from './use-webhook-changes.ts';
import { consoleCopy } from '../copy.ts';
import { webhooksCopy as t } from './webhooks-copy.ts';

/** A new signing secret with its endpoint's URL, shown once: copy it, then done. */
export function WebhookSecret(props: {
  secret: ShownSecret;
  headingRef: Ref<HTMLHeadingElement>;
  onNotice: (notice: Notice) => void;
  onDone: () => void;
}) {
  const { secret } = props;
  return (
    <ShownOnce
      titleId="webhook-secret-title"
      level={3}
      heading={t.secretHeading}
      headingRef={props.headingRef}
      warning={t.secretOnce}
      copyLabel={consoleCopy.shownSecret.copy}
      onCopy={() =>
        void copyText(secret.secret, consoleCopy.shownSecret.copied, consoleCopy.shownSecret.copyFailed).then(
          props.onNotice,
        )
      }
      doneLabel={consoleCopy.shownSecret.done}
      onDone={props.onDone}
    >
      <dl className="console-facts webhook-secret">
        <dt>{t.url}</dt>
        <dd>
          <code>{secret.url}</code>
        </dd>
        <dt>{t.secretHeading}</dt>
        <dd>
          <code data-testid="webhook-secret">{secret.secret}</code>
        </dd>
      </dl>
    </ShownOnce>
  );
}
