module github.com/politecrawl/crawl

go 1.26

require (
	github.com/PuerkitoBio/goquery v1.13.0 // indirect
	github.com/andybalholm/brotli v1.2.8 // indirect
	github.com/andybalholm/cascadia v1.3.4 // indirect
	github.com/dolthub/maphash v0.1.0 // indirect
	github.com/gammazero/deque v1.0.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/internetarchive/gowarc v0.8.101 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/klauspost/cpuid/v2 v2.0.12 // indirect
	github.com/maypok86/otter v1.2.4 // indirect
	github.com/miekg/dns v1.1.72 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/refraction-networking/utls v1.8.2 // indirect
	github.com/temoto/robotstxt v1.1.2 // indirect
	github.com/ulikunitz/xz v0.5.15 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	github.com/zeebo/blake3 v0.2.4 // indirect
	go.etcd.io/bbolt v1.5.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
)
