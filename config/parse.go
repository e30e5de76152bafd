package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// maxConfigSize bounds the configuration file read by Parse.
const maxConfigSize = 4 << 20

// Parse reads a YAML configuration over Default. Decoding is strict: an
// unknown key, a value of the wrong type or a second document is an error naming its line.
// The result is not validated; call Validate.
func Parse(r io.Reader) (Config, error) {
	cfg := Default()
	data, err := io.ReadAll(io.LimitReader(r, maxConfigSize+1))
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	if len(data) > maxConfigSize {
		return cfg, fmt.Errorf("config: file larger than %d bytes", maxConfigSize)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		if errors.Is(err, io.EOF) {
			return cfg, nil // an empty file means the defaults
		}
		return cfg, fmt.Errorf("config: %w", err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return cfg, errors.New("config: more than one YAML document")
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err == nil {
		cfg.lines = map[string]int{}
		indexLines(&root, "", cfg.lines)
	}
	return cfg, nil
}

// indexLines records the line of every key path in a YAML tree, so Validate can say
// where a bad value came from.
func indexLines(n *yaml.Node, prefix string, lines map[string]int) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			indexLines(c, prefix, lines)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if prefix != "" {
				key = prefix + "." + key
			}
			lines[key] = n.Content[i].Line
			indexLines(n.Content[i+1], key, lines)
		}
	}
}
