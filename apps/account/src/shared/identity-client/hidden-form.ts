/**
 * Posts `fields` to `action` as a plain HTML form (a top-level navigation): single sign-on and TOTP
 * setup go to the identity service this way, so its redirects happen in the browser.
 */
export function postHiddenForm(action: string, fields: Record<string, string>): void {
  const form = document.createElement('form');
  form.method = 'POST';
  form.action = action;
  form.hidden = true;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }
  document.body.appendChild(form);
  form.submit();
}
