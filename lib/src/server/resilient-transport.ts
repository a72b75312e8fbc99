import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError, type Transport } from "@connectrpc/connect";
import { ErrorDetailSchema } from "@svc/gen/svc/api/v1/errors_pb.js";
import { createPolicyLookup } from "../auth/auth-policy.js";
import { callDeadlineMs } from "../deadline/index.js";
import { remainingMs } from "./deadline-context.js";

export interface ResilienceOptions {
  /**
   * The deadline of a call whose caller gave none and that serves no request with one; without
   * it, the deadline of the method's kind (lib/src/deadline/call-deadlines.ts).
   */
  defaultTimeoutMs?: number;
  /** Further tries of a read-only call that found the peer unavailable. */
  retries?: number;
  /** The first backoff; each next one doubles, with jitter. */
  backoffMs?: number;
}

/**
 * A transport to a peer service with the platform's rules for calls between services: every
 * call has a deadline (the caller's, capped by what is left of the request being served, else
 * `defaultTimeoutMs`, else the deadline of the method's kind: a read or a halt a few seconds), and a call is tried again, with exponential backoff and jitter inside
 * that deadline, only when the proto marks the method read-only (`read_only` in
 * `(svc.api.v1.auth)`) and the peer was unavailable. A write is never sent twice: it may have
 * been applied before the connection broke.
 *
 * @example createClient(BotsService, resilientTransport(createGrpcTransport({ baseUrl }), {}))
 */
export function resilientTransport(inner: Transport, opts: ResilienceOptions): Transport {
  const policyOf = createPolicyLookup();
  const retries = opts.retries ?? 2;
  const backoffMs = opts.backoffMs ?? 100;
  const budget = (method: DescMethod, timeoutMs: number | undefined) => {
    const left = remainingMs();
    const ms = Math.min(
      timeoutMs ?? opts.defaultTimeoutMs ?? callDeadlineMs(method),
      left ?? Infinity,
    );
    if (ms <= 0)
      throw new ConnectError(
        "the request this call serves has no time left; the call was not made",
        Code.DeadlineExceeded,
      );
    return ms;
  };
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const end = Date.now() + budget(method, timeoutMs);
      const idempotent = policyOf(method).readOnly;
      let previous: unknown;
      for (let attempt = 0; ; attempt++) {
        try {
          return await inner.unary(method, signal, end - Date.now(), header, input, contextValues);
        } catch (err) {
          // A try again cut short by the deadline says less than the answer it retried (503
          // membership_unverifiable, say): the caller gets that answer, not a bare 504.
          if (previous !== undefined && ConnectError.from(err).code === Code.DeadlineExceeded)
            throw previous;
          const delay = backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
          const again =
            idempotent &&
            attempt < retries &&
            !signal?.aborted &&
            peerUnavailable(ConnectError.from(err)) &&
            Date.now() + delay < end;
          if (!again) throw err;
          previous = err;
          await new Promise((r) => setTimeout(r, delay));
        }
      }
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return inner.stream(method, signal, budget(method, timeoutMs), header, input, contextValues);
    },
  };
}

/** The peer did not answer (refused, reset), or said it is unavailable for now. */
function peerUnavailable(err: ConnectError): boolean {
  if (err.code === Code.Unavailable) return true;
  return err.code === Code.Aborted && err.findDetails(ErrorDetailSchema).length === 0;
}
