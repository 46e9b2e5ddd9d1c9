// The TypeScript SDK's declarations (sdks/typescript, written by hand, camelCased) checked by tsc
// against the client generated from docs/openapi.json: every field the API answers for an object is
// declared on the SDK's class for it, with a type the wire value's non-null form fits. A field the
// API gains that the SDK does not declare fails to compile here (OpenApiClientTest).
import type { components } from './api.js'
import type {
  ApiKey, Checkpoint, Computer, Connection, Database, DatabaseRole, ExecResult, Invitation, Operation, PgDatabase,
  Variable, Workspace,
} from '../../../sdks/typescript/index.js'

type Schemas = components['schemas']
type Camel<S extends string> = S extends `${infer H}_${infer T}` ? `${H}${Capitalize<Camel<T>>}` : S
/** The wire object as the SDK names its fields. */
type Wire<T> = { [K in keyof T as Camel<K & string>]: T[K] }
type Missing<W, Sdk> = Exclude<keyof Wire<W>, keyof Sdk>
type Scalar = string | number | boolean
/** Fields of plain values whose wire value (null aside) is not what the SDK declares for them. */
type Mistyped<W, Sdk> = {
  [K in keyof Wire<W> & keyof Sdk]: NonNullable<Wire<W>[K]> extends Scalar
    ? NonNullable<Wire<W>[K]> extends Sdk[K] ? never : K
    : never
}[keyof Wire<W> & keyof Sdk]
type Covers<W, Sdk> = [Missing<W, Sdk>, Mistyped<W, Sdk>] extends [never, never] ? true : [Missing<W, Sdk>, Mistyped<W, Sdk>]
type Holds<T extends true> = T

export type Checked = [
  Holds<Covers<Schemas['Workspace'], Workspace>>,
  Holds<Covers<Schemas['Computer'], Computer>>,
  Holds<Covers<Schemas['Database'], Database>>,
  Holds<Covers<Schemas['Connection'], Connection>>,
  Holds<Covers<Schemas['Checkpoint'], Checkpoint>>,
  Holds<Covers<Schemas['Variable'], Variable>>,
  Holds<Covers<Schemas['ApiKey'], ApiKey>>,
  Holds<Covers<Schemas['Invitation'], Invitation>>,
  Holds<Covers<Schemas['Operation'], Operation>>,
  Holds<Covers<Schemas['ExecResult'], ExecResult>>,
  Holds<Covers<Schemas['DatabaseRole'], DatabaseRole>>,
  Holds<Covers<Schemas['PgDatabase'], PgDatabase>>,
]
