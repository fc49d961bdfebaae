import { INBOX_SCRIPT, INBOX_STYLE } from './browser-assets';

/** Control characters but tab and newline: shown as `\xNN` rather than acted on. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  // Control characters (a lone \r, ESC) show as escapes, as in the CLI: no text of a model's, a tool's or a sender's
  // may act on the page's live streams or pass for something else.
  return text
    .replace(/\r\n/g, '\n')
    .replace(CONTROL, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Marks a string as HTML already escaped or built from escaped parts. */
export interface Html {
  readonly html: string;
}

/** Template tag: interpolated strings are escaped, {@link Html} values and arrays of them are inserted as they are. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return { html: out };
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'object') return 'html' in value ? (value as Html).html : escapeHtml(JSON.stringify(value));
  if (typeof value === 'string') return escapeHtml(value);
  return escapeHtml(typeof value === 'number' || typeof value === 'boolean' ? `${value}` : typeof value);
}

/** Pretty JSON for reading (args, schemas); never throws. */
export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

// Built outside the html`` templates: the CSP allows these exact texts by hash, and a formatter must not touch them.
const STYLE_TAG: Html = { html: `<style>${INBOX_STYLE}</style>` };
const SCRIPT_TAG: Html = { html: `<script>${INBOX_SCRIPT}</script>` };

/** The page shell: one stylesheet and one small script, both inline, so the inbox is a single process to serve. */
export function page(options: { title: string; user: string | null; csrf: string | null; body: Html }): string {
  const { title, user, csrf, body } = options;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        ${csrf ? html`<meta name="csrf-token" content="${csrf}" />` : ''}
        <title>${title} · durable-react-agent inbox</title>
        ${STYLE_TAG}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">Inbox</a>
          ${
            user
              ? html`<form method="post" action="/logout" class="who">
                  <span>Signed in as <strong data-testid="user">${user}</strong></span>
                  <input type="hidden" name="csrf" value="${csrf ?? ''}" />
                  <button type="submit" class="link">Sign out</button>
                </form>`
              : ''
          }
        </header>
        <main>${body}</main>
        ${SCRIPT_TAG}
      </body>
    </html>`.html;
}

/** The sign-in form: a token pasted once becomes an HttpOnly, SameSite=Strict session cookie. */
export function loginPage(problem: string | null, next: string): string {
  return page({
    title: 'Sign in',
    user: null,
    csrf: null,
    body: html`<h1>Sign in</h1>
      ${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
      <form method="post" action="/login" class="login">
        <label for="token">Access token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required />
        <input type="hidden" name="next" value="${next}" />
        <button type="submit">Sign in</button>
      </form>`,
  });
}

/** A page saying what happened to a form post sent without the script (the script shows it inline instead). */
export function outcomePage(user: string, csrf: string, message: string, back: string): string {
  return page({
    title: 'Decision',
    user,
    csrf,
    body: html`<p role="status">${message}</p>
      <p><a href="${back}">Back</a></p>`,
  });
}
