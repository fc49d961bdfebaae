import type { QuestionForm } from '../shared/approvals';
import { html, type Html } from './html';

/*
 * An MCP server's form (elicitation), as inputs generated from its JSON Schema. MCP keeps these schemas flat: an
 * object of strings (with a format, lengths or a list of choices), numbers, integers, booleans, and arrays of choices.
 * The page's script reads the inputs into the JSON answer and checks it against the schema as the person types; the
 * server checks it again.
 */

type Schema = Record<string, unknown>;

/** The choices of an enum field: `oneOf`/`anyOf` of `{ const, title }`, or `enum` with optional `enumNames`. */
function choices(schema: Schema): Array<{ value: string; label: string }> | undefined {
  const titled = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (Array.isArray(titled))
    return titled.map((option) => ({ value: String(option.const), label: String(option.title ?? option.const) }));
  if (!Array.isArray(schema.enum)) return undefined;
  const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
  return (schema.enum as unknown[]).map((value, index) => ({
    value: String(value),
    label: String(names[index] ?? value),
  }));
}

const BOUNDS = { minimum: 'min', maximum: 'max', minLength: 'minlength', maxLength: 'maxlength' };
const INPUT_TYPES: Record<string, string> = { email: 'email', uri: 'url', date: 'date', 'date-time': 'datetime-local' };

/** One field: a labelled input of the field's type, its bounds as attributes, its description under it. */
function field(name: string, schema: Schema, required: boolean): Html {
  const type = typeof schema.type === 'string' ? schema.type : 'string';
  const label = html`${typeof schema.title === 'string' ? schema.title : name}${required ? html` <abbr title="required">*</abbr>` : ''}`;
  const hint = typeof schema.description === 'string' ? html`<small>${schema.description}</small>` : '';
  if (type === 'boolean') {
    return html`<label class="field check"
      ><input
        type="checkbox"
        data-field="${name}"
        data-type="boolean"
        ${schema.default === true ? html`checked` : ''}
      />
      ${label} ${hint}</label
    >`;
  }
  const options = choices(type === 'array' ? ((schema.items as Schema | undefined) ?? {}) : schema);
  if (options) {
    const many = type === 'array';
    const chosen = (Array.isArray(schema.default) ? (schema.default as unknown[]) : [schema.default]).map(String);
    return html`<label class="field"
      >${label}
      <select data-field="${name}" data-type="${type}" ${many ? html`multiple` : ''} ${required ? html`required` : ''}>
        ${many ? '' : html`<option value="">—</option>`}
        ${options.map(
          (option) =>
            html`<option value="${option.value}" ${chosen.includes(option.value) ? html`selected` : ''}>
              ${option.label}
            </option>`,
        )}
      </select>
      ${hint}</label
    >`;
  }
  const numeric = type === 'number' || type === 'integer';
  const input = numeric ? 'number' : (INPUT_TYPES[String(schema.format)] ?? 'text');
  const value = typeof schema.default === 'string' || typeof schema.default === 'number' ? String(schema.default) : '';
  // The browser checks these as the person types; names are fixed here and values numbers, so they are built as is.
  const bounds = Object.entries(BOUNDS)
    .filter(([keyword]) => typeof schema[keyword] === 'number')
    .map(([keyword, attribute]) => ({ html: ` ${attribute}="${Number(schema[keyword])}"` }));
  return html`<label class="field"
    >${label}
    <input
      type="${input}"
      data-field="${name}"
      data-type="${type}"
      value="${value}"
      ${numeric ? html`step="${type === 'integer' ? '1' : 'any'}"` : ''}${bounds}
      ${required ? html`required` : ''}
    />
    ${hint}</label
  >`;
}

const DECLINE_OR_CANCEL = html`<button type="submit" name="answer" value="decline" formnovalidate>Decline</button>
  <button type="submit" name="answer" value="cancel" formnovalidate>Cancel</button>`;

/**
 * The form's fields, the live check's line, and send / decline / cancel, inside the question's answer form. A link to
 * open (URL mode) is shown whole, as MCP asks, with Done in place of the fields: the person says when they have.
 */
export function schemaFormFields(form: QuestionForm): Html {
  if (form.url !== undefined) {
    // The worker lets only http(s) links through; anything else would still be shown as text, never as a link.
    const link = /^https?:\/\//i.test(form.url)
      ? html`<a href="${form.url}" target="_blank" rel="noopener noreferrer">${form.url}</a>`
      : html`<code>${form.url}</code>`;
    return html`<p class="message">${form.message}</p>
      <p>Open ${link}, then say when you have.</p>
      <button type="submit" name="answer" value="accept">Done</button> ${DECLINE_OR_CANCEL}`;
  }
  const schema = form.schema ?? {};
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return html`<p class="message">${form.message}</p>
    ${Object.entries(properties).map(([name, property]) => field(name, property, required.has(name)))}
    <input type="hidden" name="answer" value="" />
    <p class="schema-problems" role="status" aria-live="polite"></p>
    <button type="submit">Send</button> ${DECLINE_OR_CANCEL}`;
}
