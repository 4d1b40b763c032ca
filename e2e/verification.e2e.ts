import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { codeIn, newestMail } from './mailbox.ts';

describe('email verification, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a user verifies their email address with the emailed code and goes on to login', async () => {
    // An identity whose address is not verified yet, made through the identity admin API.
    const email = `unverified-${randomBytes(4).toString('hex')}@acme.test`;
    const created = await fetch(`${urls.identityAdmin}/admin/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_id: 'default',
        traits: {
          userServiceID: randomUUID(),
          email,
          name: { first: 'Una', last: 'Verified' },
          onboarding: {
            isGitUser: false,
            mfaSetupDeadline: new Date(Date.now() + 86_400_000).toISOString(),
            gitProviderConnected: false,
            tosAccepted: true,
          },
        },
      }),
    });
    expect(created.status).toBe(201);
    const identity = (await created.json()) as { id: string; verifiable_addresses: { verified: boolean }[] };
    expect(identity.verifiable_addresses[0]?.verified).toBe(false);

    const { context, page } = await browser.newPage();
    await page.goto(`${urls.platform}/account/verification`);
    await page.getByRole('heading', { name: 'Verify your email address' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Continue' }).click();

    const code = codeIn(await newestMail(urls, email));
    const field = page.getByPlaceholder('XXXXXX');
    await field.waitFor();
    expect(await page.getByText('Enter the code you received via email to proceed.').isVisible()).toBe(true);
    await field.fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await context.close();

    const after = (await (await fetch(`${urls.identityAdmin}/admin/identities/${identity.id}`)).json()) as {
      verifiable_addresses: { verified: boolean }[];
    };
    expect(after.verifiable_addresses[0]?.verified).toBe(true);
  });
});
