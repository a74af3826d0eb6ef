import type { ServerResponse } from 'node:http';

import { startLocalServer, type LocalServer, type ReceivedRequest } from './local-server';

export interface Pet {
  id: number;
  name: string;
  tag: string | null;
}

export interface PetStore extends LocalServer {
  pets: Pet[];
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'x-pet-store': '1' });
  res.end(JSON.stringify(body));
};

function create(pets: Pet[], req: ReceivedRequest, res: ServerResponse) {
  const body = req.json as { name?: unknown; tag?: unknown } | undefined;
  if (typeof body?.name !== 'string') return json(res, 400, { message: 'name is required' });
  const pet = { id: pets.length + 1, name: body.name, tag: typeof body.tag === 'string' ? body.tag : null };
  pets.push(pet);
  return json(res, 201, pet);
}

/**
 * A small pet-store API standing in for a user's HTTP API: `GET /pets?limit&tag`, `POST /pets`,
 * `GET|DELETE /pets/{id}` (404 for unknown ids), `GET /hang` (never answers) and `GET /big?bytes=` (a body of that
 * many bytes). It records every request, so tests can check what a tool sent.
 */
export async function startPetStore(): Promise<PetStore> {
  const pets: Pet[] = [
    { id: 1, name: 'Rex', tag: 'dog' },
    { id: 2, name: 'Tom', tag: 'cat' },
    { id: 3, name: 'Fido', tag: 'dog' },
  ];
  const server = await startLocalServer((req, res) => {
    const url = new URL(req.url, 'http://pet-store.invalid');
    const one = /^\/pets\/([^/]+)$/.exec(url.pathname);
    if (url.pathname === '/hang') return;
    if (url.pathname === '/big')
      return res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end('x'.repeat(Number(url.searchParams.get('bytes'))));
    if (url.pathname === '/pets' && req.method === 'GET') {
      const tag = url.searchParams.get('tag');
      const limit = Number(url.searchParams.get('limit') ?? 100);
      return json(res, 200, pets.filter((p) => !tag || p.tag === tag).slice(0, limit));
    }
    if (url.pathname === '/pets' && req.method === 'POST') return create(pets, req, res);
    const pet = one ? pets.find((p) => String(p.id) === decodeURIComponent(one[1]!)) : undefined;
    if (one && !pet) return json(res, 404, { message: 'Pet not found' });
    if (pet && req.method === 'GET') return json(res, 200, pet);
    if (pet && req.method === 'DELETE') return res.writeHead(204).end();
    return json(res, 404, { message: 'No such route' });
  });
  return Object.assign(server, { pets });
}
