// A program written against the client openapi-typescript generates from docs/openapi.json
// (api.d.ts, made by OpenApiClientTest). tsc must accept it: the valid requests type-check, and each
// line marked @ts-expect-error must be an error (tsc fails on a marker that is not), so a document
// that loses a required field or types a field as anything breaks this test.
import type { components, paths } from './api.js'

type Schemas = components['schemas']
type Body<P extends keyof paths, M extends 'post' | 'patch'> =
  paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never

const create: Body<'/workspaces/{ws}/computers', 'post'> = {
  name: 'web',
  image: 'docker.io/library/python:3.12',
  env: { GREETING: 'hi', TOKEN: { secret: 'api-token' } },
  ports: [{ target: 8000 }],
  command: ['python3', '-m', 'http.server'],
  restart: 'on-failure',
  network: { internet: false, allow_out: ['203.0.113.0/24'] },
}
// @ts-expect-error a computer needs a name
const unnamed: Schemas['CreateComputer'] = { image: 'busybox' }
// @ts-expect-error an env value is a string or a secret reference
const badEnv: Schemas['CreateComputer'] = { name: 'a', env: { N: 1 } }
// @ts-expect-error restart is one of always, on-failure, never
const badRestart: Schemas['CreateComputer'] = { name: 'a', restart: 'sometimes' }
// @ts-expect-error a port needs its target
const noTarget: Schemas['PortSpec'] = { published: 80 }

const exec: Body<'/computers/{cmp}/exec', 'post'> = { command: ['echo', 'hi'], timeout_seconds: 5 }
// @ts-expect-error exec needs a command
const noCommand: Schemas['Exec'] = { cwd: '/' }

const patch: Body<'/computers/{cmp}', 'patch'> = { env: { OLD: null }, labels: { team: 'data' }, command: null }
const variable: Schemas['CreateVariable'] = { name: 'api-token', value: 's3cret' }
// @ts-expect-error a variable needs its value
const noValue: Schemas['CreateVariable'] = { name: 'api-token' }

function describe(c: Schemas['Computer']): string {
  const state: 'creating' | 'ready' | 'sleeping' | 'failed' | null = c.state
  // @ts-expect-error a state is one of the listed ones
  const other: 'creating' = c.state
  return `${c.name} is ${state}, ${other}`
}

type ExecAnswer = paths['/computers/{cmp}/exec']['post']['responses'][200]['content']['application/json']
function exitOf(answer: ExecAnswer): number {
  return answer.exit_code
}

export { create, unnamed, badEnv, badRestart, noTarget, exec, noCommand, patch, variable, noValue, describe, exitOf }
