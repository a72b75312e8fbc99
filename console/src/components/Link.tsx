import type { ComponentChildren } from "preact";
import { onLink } from "../router.js";

export function Link(props: { href: string; children: ComponentChildren; current?: boolean }) {
  return (
    <a href={props.href} onClick={onLink} aria-current={props.current ? "page" : undefined}>
      {props.children}
    </a>
  );
}
