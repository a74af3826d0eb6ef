/** Where a request value came from, as error `loc` paths start (contract §1). */
export type Location = 'body' | 'query' | 'path' | 'header';
