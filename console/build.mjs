// Bundles the console into app resources (console/ on the classpath): app-HASH.js and app-HASH.css,
// each with a .gz beside it, and index.html naming them. Run by the Maven build (scripts/build-console).
import * as esbuild from 'esbuild'
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'

const out = process.argv[2]
if (!out) throw new Error('usage: node build.mjs OUT_DIR')
rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
await esbuild.build({
  entryPoints: { app: 'src/main.js' },
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  entryNames: '[name]-[hash]',
  outdir: out,
  loader: { '.css': 'css' },
  legalComments: 'none',
  logLevel: 'warning',
})
const built = readdirSync(out)
const js = built.find((f) => f.endsWith('.js'))
const css = built.find((f) => f.endsWith('.css'))
for (const f of built) writeFileSync(join(out, f + '.gz'), gzipSync(readFileSync(join(out, f)), { level: 9 }))
const page = readFileSync('src/index.html', 'utf8').replace('APP_CSS', css).replace('APP_JS', js)
writeFileSync(join(out, 'index.html'), page)
const size = (f) => readFileSync(join(out, f + '.gz')).length
console.log(`console: ${js} ${size(js)} B gzipped, ${css} ${size(css)} B gzipped (${createHash('sha256').update(page).digest('hex').slice(0, 8)})`)
