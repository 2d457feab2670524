/**
 * Yields the items of every page of a `List*` call, following `nextPageToken`.
 *
 * ```ts
 * for await (const p of pages(client.lifecycle.listProjects, { pageSize: 100 }, (r) => r.projects)) {
 *   console.log(p.name);
 * }
 * ```
 */
export declare function pages<Q extends object, R extends {
    nextPageToken: string;
}, T>(call: (request: Q & {
    pageToken: string;
}) => Promise<R>, request: Q, items: (response: R) => Iterable<T>): AsyncGenerator<T, void, undefined>;
