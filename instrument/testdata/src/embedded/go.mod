module example.com/embedded

go 1.26
