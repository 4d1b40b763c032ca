function cookiesOf(res: Response): string {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ');
}

/** One password login as a SPA does it: create the flow (JSON), then submit it with the CSRF cookie and token. */
export async function passwordLogin(
  publicUrl: string,
  email: string,
  password: string,
): Promise<{ status: number; cookie: string }> {
  const init = await fetch(`${publicUrl}/self-service/login/browser`, {
    headers: { accept: 'application/json' },
  });
  const flow = (await init.json()) as {
    id: string;
    ui: { nodes: { attributes: { name?: string; value?: string } }[] };
  };
  const csrf = flow.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value ?? '';
  const res = await fetch(`${publicUrl}/self-service/login?flow=${flow.id}`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json', cookie: cookiesOf(init) },
    body: JSON.stringify({ method: 'password', identifier: email, password, csrf_token: csrf }),
  });
  await res.arrayBuffer();
  return { status: res.status, cookie: cookiesOf(res) };
}
