/* eslint-disable @typescript-eslint/no-explicit-any */

/** A browser's cookie jar for `localhost`: cookies ignore ports, as browsers do. */
export class Jar {
  readonly appOrigin: string;
  constructor(appOrigin = 'http://localhost:4000') {
    this.appOrigin = appOrigin;
  }
  readonly cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /max-age=0\b/i.test(a.trim()) || /expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  async fetch(
    url: string,
    init: RequestInit & { json?: unknown } = {},
  ): Promise<{ res: Response; body: any }> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', this.header());
    if (init.json !== undefined) headers.set('content-type', 'application/json');
    const res = await fetch(url, {
      ...init,
      headers,
      body: init.json === undefined ? init.body : JSON.stringify(init.json),
      redirect: 'manual',
    });
    this.store(res);
    const text = await res.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { res, body };
  }
  /** Follows redirects until one leaves for the app (port 4000), returning that URL. */
  async navigateToApp(url: string): Promise<URL> {
    let next = new URL(url);
    for (let hop = 0; hop < 10; hop++) {
      if (next.origin === this.appOrigin) return next;
      const { res } = await this.fetch(next.toString());
      const location = res.headers.get('location');
      if (!location) throw new Error(`expected a redirect from ${next.toString()}, got ${res.status}`);
      next = new URL(location, next);
    }
    throw new Error('too many redirects');
  }
}
