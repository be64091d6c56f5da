import { singleton } from '../../utils/singleton.server';
import { openApiDocument } from './openapi.server';

/**
 * A readable API reference rendered on the server from the OpenAPI document: one section per tag, each operation
 * with its scope, parameters, body and answer schemas as indented JSON Schema. No script; a little inline CSS.
 */
export function apiReferenceHtml() {
  return singleton('api-reference-html', () => render());
}

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

type Op = {
  operationId: string;
  summary: string;
  tags: string[];
  'x-scope': string;
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { content: { 'application/json': { schema: unknown } } };
  responses: Record<string, { description: string; content?: { 'application/json': { schema: unknown } } }>;
};

function render() {
  const doc = openApiDocument() as unknown as {
    info: { title: string; description: string; version: string };
    paths: Record<string, Record<string, Op>>;
    components: { schemas: Record<string, unknown> };
  };
  const byTag = new Map<string, { method: string; path: string; op: Op }[]>();
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags[0];
      byTag.set(tag, [...(byTag.get(tag) ?? []), { method, path, op }]);
    }
  const schemaRef = (s: unknown) => {
    const ref = (s as { $ref?: string })?.$ref;
    return ref ? `<a href="#schema-${esc(ref.split('/').pop())}">${esc(ref.split('/').pop())}</a>` : `<code>${esc(JSON.stringify(s))}</code>`;
  };
  const ops = [...byTag.entries()]
    .map(
      ([tag, list]) => `<section><h2 id="tag-${esc(tag)}">${esc(tag)}</h2>${list
        .map(({ method, path, op }) => {
          const params = (op.parameters ?? [])
            .map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${p.schema ? `<code>${esc(JSON.stringify(p.schema))}</code>` : ''} ${esc(p.description)}</td></tr>`)
            .join('');
          const ok = Object.entries(op.responses).find(([code]) => code.startsWith('2'));
          return `<article id="op-${esc(op.operationId)}"><h3><span class="m m-${esc(method)}">${esc(method.toUpperCase())}</span> <code>/api/v1${esc(path)}</code></h3>
<p>${esc(op.summary)}. Scope: <code>${esc(op['x-scope'])}</code>.</p>
${params ? `<table><thead><tr><th>Parameter</th><th>In</th><th>Required</th><th>Schema</th></tr></thead><tbody>${params}</tbody></table>` : ''}
${op.requestBody ? `<p>Body (JSON): ${schemaRef(op.requestBody.content['application/json'].schema)}</p>` : ''}
${ok ? `<p>Answer ${esc(ok[0])}: ${ok[1].content ? schemaRef(ok[1].content['application/json'].schema) : esc(ok[1].description)}. Errors: ${Object.keys(op.responses).filter((c) => !c.startsWith('2')).join(', ')} with <a href="#schema-Error">Error</a>.</p>` : ''}
</article>`;
        })
        .join('')}</section>`,
    )
    .join('');
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, s]) => `<section><h3 id="schema-${esc(name)}">${esc(name)}</h3><pre>${esc(JSON.stringify(s, null, 2))}</pre></section>`)
    .join('');
  const toc = [...byTag.keys()].map((t) => `<li><a href="#tag-${esc(t)}">${esc(t)}</a></li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(doc.info.title)} reference</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1a1a1a}code,pre{font-family:ui-monospace,monospace;font-size:.875rem}pre{background:#f4f4f5;padding:.75rem;overflow-x:auto}table{border-collapse:collapse;width:100%;display:block;overflow-x:auto}td,th{border:1px solid #d4d4d8;padding:.25rem .5rem;text-align:left;vertical-align:top}article{border-top:1px solid #e4e4e7;padding-top:.5rem}.m{display:inline-block;min-width:4rem;font-size:.8rem;padding:.1rem .4rem;border-radius:.25rem;background:#e4e4e7}.m-get{background:#dbeafe}.m-post{background:#dcfce7}.m-delete{background:#fee2e2}code{overflow-wrap:anywhere}</style></head>
<body><main><h1>${esc(doc.info.title)} ${esc(doc.info.version)}</h1><p>${esc(doc.info.description)}</p>
<p>Machine-readable: <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1). Answers carry <code>RateLimit-Limit</code>, <code>RateLimit-Remaining</code> and <code>RateLimit-Reset</code>; a 429 also carries <code>Retry-After</code>.</p>
<nav aria-label="Sections"><ul>${toc}<li><a href="#schemas">Schemas</a></li></ul></nav>${ops}<h2 id="schemas">Schemas</h2>${schemas}</main></body></html>`;
}
