import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError } from "./api.js";
import { Link } from "./components/Link.js";
import { ErrorNote } from "./components/ErrorNote.js";
import { useRoute, type Route } from "./router.js";
import { pickUpSignIn, session, signInUrl, type AuthMode } from "./session.js";
import type { WhoAmI } from "./types.js";
import { BotsList } from "./screens/BotsList.js";
import { BotPage } from "./screens/BotPage.js";
import { Approvals } from "./screens/Approvals.js";
import { KillSwitches } from "./screens/KillSwitches.js";
import { Datasets } from "./screens/Datasets.js";
import "./styles.css";

const signIn = pickUpSignIn();

const NAV: { href: string; label: string; screen: Route["screen"] }[] = [
  { href: "/console/bots", label: "Bots", screen: "bots" },
  { href: "/console/approvals", label: "Approvals", screen: "approvals" },
  { href: "/console/kill-switch", label: "Kill switch", screen: "kill-switch" },
  { href: "/console/datasets", label: "Datasets", screen: "datasets" },
];

function App() {
  const route = useRoute();
  const [who, setWho] = useState<WhoAmI | undefined>();
  const [mode, setMode] = useState<AuthMode>("unknown");
  const [whoError, setWhoError] = useState<ApiError | undefined>();
  const [actAs, setActAs] = useState(session.actAs());
  const main = useRef<HTMLElement>(null);

  // Local auth answers whoami without a token as a local| user; OIDC answers 401 until sign-in.
  useEffect(() => {
    api<WhoAmI>("GET", "/auth/whoami")
      .then((w) => {
        setWho(w);
        setWhoError(undefined);
        setMode(w.sub.startsWith("local|") ? "local" : "oidc");
      })
      .catch((err: ApiError) => {
        setWho(undefined);
        setWhoError(err);
        if (err.status === 401) setMode("oidc");
      });
  }, [actAs]);

  // A new screen: its heading takes the focus, so a screen reader announces where we are.
  useEffect(() => {
    main.current?.querySelector<HTMLElement>("h1")?.focus();
  }, [route.screen, route.screen === "bot" ? route.ref : ""]);

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">svc console</p>
        <nav aria-label="Screens">
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <Link
                  href={n.href}
                  current={
                    route.screen === n.screen || (n.screen === "bots" && route.screen === "bot")
                  }
                >
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {mode === "local" ? (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                const v = (new FormData(e.currentTarget).get("act-as") as string) ?? "";
                session.setActAs(v);
                setActAs(session.actAs());
              }}
            >
              <label for="act-as">Act as</label>{" "}
              <input
                id="act-as"
                name="act-as"
                defaultValue={actAs}
                placeholder="default"
                size={10}
              />{" "}
              <button type="submit">Set</button>
            </form>
          ) : null}
          <p aria-live="polite">
            {who ? (
              <>
                Signed in as <strong>{who.sub}</strong>
                {who.amr?.includes("mfa") || who.acr ? ` (${who.amr?.join(", ") || who.acr})` : ""}
              </>
            ) : mode === "oidc" ? (
              <a href={signInUrl()}>Sign in</a>
            ) : (
              "…"
            )}
            {mode === "oidc" && session.token() ? (
              <>
                {" "}
                <button
                  type="button"
                  onClick={() => {
                    session.setToken("");
                    location.reload();
                  }}
                >
                  Sign out
                </button>
              </>
            ) : null}
          </p>
        </div>
      </header>
      {signIn.error ? (
        <p class="error" role="alert">
          Sign-in failed: {signIn.error}
        </p>
      ) : null}
      {whoError && whoError.status !== 401 ? <ErrorNote error={whoError} what="who am I" /> : null}
      <main id="main" ref={main}>
        {route.screen === "bots" ? <BotsList /> : null}
        {route.screen === "bot" ? <BotPage key={route.ref} botRef={route.ref} /> : null}
        {route.screen === "approvals" ? <Approvals who={who} /> : null}
        {route.screen === "kill-switch" ? <KillSwitches /> : null}
        {route.screen === "datasets" ? <Datasets /> : null}
        {route.screen === "not-found" ? (
          <>
            <h1 tabIndex={-1}>Not found</h1>
            <p>
              The console has no page at <code>{route.path}</code>. <Link href="/">Bots</Link>
            </p>
          </>
        ) : null}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
