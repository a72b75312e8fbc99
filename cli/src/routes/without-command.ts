/**
 * Routes deliberately without an svc command, each with its reason (a route a person calls
 * has one; the test in route-coverage.test.ts fails for any other route without one).
 */
export const WITHOUT_COMMAND: Record<string, string> = {
  "POST /_internal/idp/sync-groups": "called by the identity provider's hook, not by a person",
  "GET /_internal/memberships/{subject}": "service-to-service: the gateway reads memberships",
  "POST /_internal/oidc/sync": "called by the identity provider after a login, not by a person",
  "GET /auth/login": "a browser redirect to the identity provider (the console's sign-in)",
  "GET /auth/callback": "the identity provider's redirect back to the browser after sign-in",
  "POST /auth/license/leases": "called by a deployed bot's runtime for its license lease",
  "GET /auth/license/public-key": "read by bot runtimes to check their lease signatures",
  "GET /events/stream": "a server-sent event stream for the console and API clients (EventSource)",
};
