// Every item of a paged List* call, page after page.
/**
 * Yields the items of every page of a `List*` call, following `nextPageToken`.
 *
 * ```ts
 * for await (const p of pages(client.lifecycle.listProjects, { pageSize: 100 }, (r) => r.projects)) {
 *   console.log(p.name);
 * }
 * ```
 */
export async function* pages(call, request, items) {
    let pageToken = "";
    for (;;) {
        const response = await call({ ...request, pageToken });
        yield* items(response);
        if (!response.nextPageToken)
            return;
        pageToken = response.nextPageToken;
    }
}
