// Package config is what a crawl can be told: the sections of its YAML file, their
// defaults, the checks Validate makes, and the seeds file.
//
// Default returns the defaults, Parse reads a YAML file over them, Validate checks the
// result and reports the first bad value as an *Error naming its key and line. Every
// key is documented, with its unit and default, in config.example.yaml at the module
// root; TestExampleConfigIsDefaults keeps the two equal. The package reads files only
// where a key names one (Fetch.TLS reads the CA file); it fetches nothing and imports
// no engine, so the command can check a configuration before a crawl starts.
package config
