import type { ApiError } from "../api.js";
import { signInUrl } from "../session.js";

/**
 * An error as the platform said it: status, code and message, never hidden behind a generic
 * "something went wrong". A step-up challenge offers the sign-in that answers it.
 */
export function ErrorNote({ error, what }: { error: ApiError | undefined; what?: string }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <p>
        {what ? <strong>{what}: </strong> : null}
        {error.status ? `${error.status} ` : ""}
        <code>{error.code}</code> {error.message}
      </p>
      {error.code === "four_eyes_violation" ? (
        <p>
          Four eyes: the person who submitted a request cannot decide it. Ask someone else, or in
          local mode set <em>Act as</em> to another user.
        </p>
      ) : null}
      {error.stepUp ? (
        <p>
          This action needs a fresh second factor.{" "}
          <a href={signInUrl(error.stepUp)}>Sign in again with MFA</a> and repeat it.
        </p>
      ) : error.status === 401 ? (
        <p>
          <a href={signInUrl()}>Sign in</a>
        </p>
      ) : null}
    </div>
  );
}
