/** Where a request value came from, as error `loc` paths start. */
export type Location = 'body' | 'query' | 'path' | 'header';
