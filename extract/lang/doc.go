// Package lang identifies the language of a text: its ISO 639-1 code, its script and
// a confidence, from the text alone.
//
// Scripts that one language writes (Greek, Hangul, kana, Thai, the scripts of India,
// …) give the language directly. Texts in Latin, Cyrillic, Arabic, Devanagari and Han
// script are scored by a naive Bayes model of character 2- and 3-grams trained on
// texts that Debian and npm ship under free licences (SOURCES.md); the model is
// embedded in the package, so nothing is downloaded, and decoded on the first call.
//
// # Caveats
//
// A text of a few words is often misjudged between close languages (Danish and
// Norwegian, Croatian and Bosnian, Malay and Indonesian), and Serbian in Latin script
// is reported as Croatian or Bosnian. One language is named per script: a page that
// mixes English and German paragraphs gets the one with most letters. The first call
// decodes the model, 0.2 s of CPU, and keeps 3.7 MiB of tables.
package lang
