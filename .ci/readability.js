#!/usr/bin/env node
// Reference main-text extractor for politecrawl's text benchmarks (issue 30): Mozilla's
// Readability.js (the extractor of Firefox's reader view) on a jsdom document, as the
// article extraction benchmark runs it (extractors/readability_js/cli.js there).
// Reads one HTML file path per line on stdin; writes one JSON object per line on stdout:
// {"file": path, "text": article.textContent} ("" when Readability finds no article).
// The packages come from .ci/node (npm ci there).
'use strict'
const path = require('node:path')
const { readFileSync } = require('node:fs')
const readline = require('node:readline')
const modules = path.join(__dirname, 'node', 'node_modules')
const { Readability } = require(path.join(modules, '@mozilla', 'readability'))
const { JSDOM, VirtualConsole } = require(path.join(modules, 'jsdom'))

const quiet = new VirtualConsole() // pages' CSS and script errors are not ours to report

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
rl.on('line', (file) => {
  if (!file) return
  let text = ''
  try {
    const html = readFileSync(file, 'utf-8')
    const doc = new JSDOM(html, { url: 'https://example.com/', virtualConsole: quiet })
    const article = new Readability(doc.window.document).parse()
    if (article && article.textContent) text = article.textContent
    doc.window.close()
  } catch (e) {
    process.stderr.write(`${file}: ${e.message}\n`)
  }
  process.stdout.write(JSON.stringify({ file, text }) + '\n')
})
