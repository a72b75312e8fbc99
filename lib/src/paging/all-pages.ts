/**
 * Every item of a paged list, following next_page_token to the last page: for the callers that
 * must see the whole list (a report to a regulator, a drill's roster), never a page of it.
 *
 * @example
 *   const runs = await allPages((pageToken) => bots.listComplianceRuns({ botRef, year, limit: 1000, pageToken }));
 */
export async function allPages<T>(
  fetch: (pageToken: string) => Promise<{ items: T[]; nextPageToken: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let pageToken = "";
  do {
    const page = await fetch(pageToken);
    all.push(...page.items);
    pageToken = page.nextPageToken;
  } while (pageToken);
  return all;
}
