import { api, seg } from "../api.js";
import { useLoad } from "../hooks.js";
import type { StrategySource as Source } from "../types.js";
import { ErrorNote } from "./ErrorNote.js";

/**
 * A version's strategy code as the platform stores it: each file read-only, with the digest the
 * version's hash locks, the bundle's digest and the SDK version it was checked against.
 */
export function StrategySource({ botRef, version }: { botRef: string; version: number }) {
  const source = useLoad(
    () => api<Source>("GET", `/bots/${seg(botRef)}/versions/${version}/strategy`),
    [botRef, version],
  );
  const code = source.data?.code;
  const heading = `strategy-src-h-${version}`;
  return (
    <section class="panel strategy-source" aria-labelledby={heading} data-version={version}>
      <h3 id={heading}>Strategy source of version {version}</h3>
      <ErrorNote error={source.error} what="reading the strategy source" />
      {code ? (
        <>
          <dl class="facts">
            <dt>Source digest</dt>
            <dd>
              <code class="digest">{code.digest}</code>
            </dd>
            <dt>Bundle digest</dt>
            <dd>
              <code>{code.bundle_digest}</code>
            </dd>
            <dt>SDK version</dt>
            <dd>{code.sdk_version}</dd>
          </dl>
          {code.files.map((f, i) => (
            <figure key={f.path} class="source-file">
              <figcaption>
                <code>{f.path}</code>
                {i === 0 ? " (entry)" : ""}
              </figcaption>
              {/* Focusable, so a keyboard can scroll a long file; read-only by being no field. */}
              <pre tabIndex={0}>
                <code>{f.content}</code>
              </pre>
            </figure>
          ))}
        </>
      ) : source.loading ? (
        <p>Loading…</p>
      ) : null}
    </section>
  );
}
