/** A parsed REST path template such as `/bots/{bot_ref}/paper/stop/{task_id}`. */
export interface PathTemplate {
  template: string;
  /** The same path in fastify's syntax: `/bots/:bot_ref/paper/stop/:task_id`. */
  routerPath: string;
  params: string[];
}

const SEGMENT = /^\{([a-z_][a-z0-9_]*)\}$/;

/** Parses a template; a malformed annotation fails at start, never at request time. */
export function parsePathTemplate(template: string): PathTemplate {
  if (!template.startsWith("/")) throw new Error(`path template ${template} must start with /`);
  const params: string[] = [];
  const parts = template.split("/").map((segment) => {
    if (!segment.includes("{")) return segment;
    const m = SEGMENT.exec(segment);
    if (!m)
      throw new Error(`path template ${template}: segment ${segment} must be a whole {field}`);
    params.push(m[1]!);
    return `:${m[1]}`;
  });
  return { template, routerPath: parts.join("/"), params };
}
