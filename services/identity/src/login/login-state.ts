import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/** What travels from /auth/login to /auth/callback inside the sealed `state` parameter. */
export interface LoginState {
  /** PKCE code verifier: only the platform ever sees it. */
  verifier: string;
  returnTo: string;
  redirectUri: string;
  /** SHA-256 of the browser-binding cookie set with the redirect (login CSRF). */
  binding: string;
  /** Epoch ms after which the state is refused. */
  expiresAt: number;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals and opens login states with AES-256-GCM: the provider and the browser carry the state
 * but can neither read the PKCE verifier in it nor alter it.
 */
export class LoginStateSealer {
  private readonly key: Buffer;

  /** `base64Key` is 32 bytes in base64; without one, a key for this process only. */
  constructor(base64Key?: string) {
    this.key = base64Key ? Buffer.from(base64Key, "base64") : randomBytes(32);
    if (this.key.length !== 32)
      throw new TypeError("SVC_AUTH_LOGIN_STATE_KEY must be 32 bytes in base64");
  }

  seal(state: LoginState): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(state), "utf8"), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The state, or undefined when it was altered, sealed by another key, or has expired. */
  open(sealed: string, now: number): LoginState | undefined {
    try {
      const raw = Buffer.from(sealed, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const text = Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString("utf8");
      const state = JSON.parse(text) as LoginState;
      return state.expiresAt > now ? state : undefined;
    } catch {
      return undefined;
    }
  }
}

/** The cookie value's digest, as kept in the state. */
export const bindingDigest = (cookieValue: string) =>
  createHash("sha256").update(cookieValue).digest("base64url");
