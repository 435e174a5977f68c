module example.com/cgosync

go 1.24
