module example.com/iohttp

go 1.26
