/**
 * Where a login may return: a path of this platform ("/" by default). Anything that could leave
 * the site (an absolute URL, "//host", "/\host", a control character) is refused, so /auth/login
 * is no open redirect and no token is handed to another origin in a fragment.
 *
 * @example safeReturnTo("/bots/alpha?tab=runs") // "/bots/alpha?tab=runs"
 * @example safeReturnTo("//evil.example") // undefined
 */
export function safeReturnTo(value: string): string | undefined {
  if (value === "") return "/";
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return undefined;
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return undefined;
  // The fragment is ours to write (the token goes there).
  return value.split("#")[0];
}
