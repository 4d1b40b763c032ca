import type { FastifyReply } from 'fastify';

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const baseCss = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:12px 24px;font-weight:600}
main{max-width:960px;margin:24px auto;padding:0 24px}
a{color:#0969da}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:8px 12px;border-bottom:1px solid #d0d7de;vertical-align:top}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #d0d7de;padding:12px}
iframe{width:100%;height:480px;border:1px solid #d0d7de;background:#fff}
.card{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:24px;max-width:420px;margin:48px auto}
label{display:block;margin:12px 0 4px}
input[type=text]{width:100%;box-sizing:border-box;padding:6px 8px;font-size:14px}
button{margin-top:16px;margin-right:8px;padding:6px 16px;font-size:14px;cursor:pointer}
.primary{background:#1f883d;color:#fff;border:1px solid #1a7f37;border-radius:6px}
.muted{color:#57606a;font-size:13px}
`;

export interface PageOptions {
  /** Extra CSP directives, e.g. `frame-src 'self'`. */
  csp?: string[];
}

/**
 * Sends a small HTML page with a strict CSP: no script at all, styles only from the page itself,
 * not frameable.
 */
export function sendPage(
  reply: FastifyReply,
  title: string,
  body: string,
  options: PageOptions = {},
): FastifyReply {
  const csp = ["default-src 'none'", "style-src 'unsafe-inline'", "base-uri 'none'", "frame-ancestors 'none'"]
    .concat(options.csp ?? [])
    .join('; ');
  return reply
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .send(
      `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${baseCss}</style>
</head>
<body>
${body}
</body>
</html>
`,
    );
}
