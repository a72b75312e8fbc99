import { useEffect, useState } from "preact/hooks";

/**
 * The console's own routes live under /console/ so that none can shadow an API route; / is the
 * bots list too. History API navigation, no library: five screens do not need one.
 */
export type Route =
  | { screen: "bots" }
  | { screen: "bot"; ref: string }
  | { screen: "approvals" }
  | { screen: "kill-switch" }
  | { screen: "datasets" }
  | { screen: "not-found"; path: string };

export function routeOf(path: string): Route {
  const p = path.replace(/\/+$/, "") || "/";
  if (p === "/" || p === "/console" || p === "/console/bots") return { screen: "bots" };
  const bot = /^\/console\/bots\/([^/]+)$/.exec(p);
  if (bot) return { screen: "bot", ref: decodeURIComponent(bot[1]!) };
  if (p === "/console/approvals") return { screen: "approvals" };
  if (p === "/console/kill-switch") return { screen: "kill-switch" };
  if (p === "/console/datasets") return { screen: "datasets" };
  return { screen: "not-found", path: p };
}

export function navigate(to: string) {
  if (to === location.pathname) return;
  history.pushState(null, "", to);
  dispatchEvent(new PopStateEvent("popstate"));
}

export function useRoute(): Route {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const on = () => setPath(location.pathname);
    addEventListener("popstate", on);
    return () => removeEventListener("popstate", on);
  }, []);
  return routeOf(path);
}

/** A link that navigates in place (a new tab or window still works: it is a real href). */
export function onLink(e: MouseEvent) {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
  e.preventDefault();
  navigate(a.getAttribute("href") ?? "/");
}
