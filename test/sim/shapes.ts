// How the simulator dresses its answers: every reading of the spec's gaps that DESIGN.md names.

export interface Shape {
  /** `bare`: the object itself; `data`: `{"data": {...}}`; `named`: `{"deployment": {...}}`. */
  envelope: 'bare' | 'data' | 'named';
  /** `id`, or `<resource>Id` (`deploymentId`). */
  id: 'id' | 'prefixed';
  /** `status` or `state`. */
  status: 'status' | 'state';
  /** A bare array, or under `data`, `items` or the plural name. */
  list: 'array' | 'data' | 'items' | 'plural';
  /** A Claw's deployment as `{"deployment": {"id", "status"}}` or flat `currentDeploymentId` + `deploymentStatus`. */
  clawDeployment: 'nested' | 'flat';
}

export const SHAPES: Record<string, Shape> = {
  plain: { envelope: 'bare', id: 'id', status: 'status', list: 'array', clawDeployment: 'nested' },
  'data-envelope': { envelope: 'data', id: 'id', status: 'status', list: 'data', clawDeployment: 'nested' },
  'named-envelope': { envelope: 'named', id: 'prefixed', status: 'state', list: 'plural', clawDeployment: 'flat' },
  'items-list': { envelope: 'bare', id: 'prefixed', status: 'status', list: 'items', clawDeployment: 'flat' },
  'state-field': { envelope: 'data', id: 'prefixed', status: 'state', list: 'data', clawDeployment: 'nested' },
};

export type Fields = Record<string, unknown>;

/** One resource object, with its id and status under the shape's names. */
export function dressObject(
  shape: Shape,
  resource: string,
  id: string,
  status: string | undefined,
  fields: Fields,
): Fields {
  const object: Fields = { [shape.id === 'id' ? 'id' : `${resource}Id`]: id, ...fields };
  if (status !== undefined) object[shape.status] = status;
  return object;
}

export function envelope(shape: Shape, resource: string, object: Fields): unknown {
  if (shape.envelope === 'data') return { data: object };
  if (shape.envelope === 'named') return { [resource]: object };
  return object;
}

export function dressList(shape: Shape, plural: string, items: unknown[], nextCursor?: string): unknown {
  const paging = nextCursor ? { nextCursor } : {};
  switch (shape.list) {
    case 'array':
      return items;
    case 'data':
      return { data: items, ...paging };
    case 'items':
      return { items, meta: paging };
    default:
      return { [plural]: items, ...paging };
  }
}
