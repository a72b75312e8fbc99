import http from "node:http";
import https from "node:https";
import { checkTargetUrl, guardedLookup, TargetRefused, type TargetPolicy } from "./target-url.js";

/** What one POST to a receiver came to: its status (0: no answer) and why it failed, if it did. */
export interface PostOutcome {
  statusCode: number;
  error: string;
  durationMs: number;
}

/**
 * POSTs one signed webhook. The URL and every address its name resolves to are checked again
 * (a subscription's name may have come to point inward since); redirects are not followed (a 3xx
 * is a failure: a receiver could otherwise send the platform anywhere); the whole attempt,
 * connection included, has `deadlineMs`; the answer's body is not read past 4 KiB.
 */
export function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  opts: TargetPolicy & { deadlineMs: number },
): Promise<PostOutcome> {
  const started = Date.now();
  const done = (statusCode: number, error: string): PostOutcome => ({
    statusCode,
    error,
    durationMs: Date.now() - started,
  });
  let url: URL;
  try {
    url = checkTargetUrl(target, opts);
  } catch (err) {
    return Promise.resolve(done(0, err instanceof TargetRefused ? err.reason : String(err)));
  }
  return new Promise((resolve) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(url, {
      method: "POST",
      lookup: guardedLookup(opts),
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "user-agent": "svc-webhooks/1",
      },
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${opts.deadlineMs} ms`)),
      opts.deadlineMs,
    );
    req.on("response", (res) => {
      let read = 0;
      res.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > 4096) res.destroy();
      });
      const finish = () => {
        clearTimeout(timer);
        const code = res.statusCode ?? 0;
        resolve(done(code, code >= 200 && code < 300 ? "" : `the receiver answered HTTP ${code}`));
      };
      res.on("end", finish);
      res.on("close", finish);
      res.on("error", finish);
    });
    req.on("error", (err) => {
      clearTimeout(timer);
      resolve(done(0, err instanceof TargetRefused ? err.reason : err.message));
    });
    req.end(body);
  });
}
