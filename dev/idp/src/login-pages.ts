const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:16px system-ui;max-width:24rem;margin:4rem auto;padding:0 1rem}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.4rem;font:inherit}
button{margin-top:1rem;padding:.5rem 1rem;font:inherit}.error{color:#a00}</style></head>
<body><h1>${escape(title)}</h1>${body}</body></html>`;

/** The first factor: who you are and your password. */
export function passwordPage(uid: string, error?: string, username = ""): string {
  return page(
    "Sign in to svc (development provider)",
    `${error ? `<p class="error" role="alert">${escape(error)}</p>` : ""}
<form method="post" action="/interaction/${escape(uid)}/login">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" value="${escape(username)}" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="otp">Authenticator code (when asked for MFA)</label><input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="\\d{6}">
<button type="submit">Sign in</button></form>`,
  );
}

/** The second factor, asked when the post-login action requires MFA. */
export function totpPage(uid: string, error?: string): string {
  return page(
    "Enter your authenticator code",
    `${error ? `<p class="error" role="alert">${escape(error)}</p>` : ""}
<form method="post" action="/interaction/${escape(uid)}/otp">
<label for="otp">6-digit code</label><input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="\\d{6}" required>
<button type="submit">Verify</button></form>`,
  );
}
