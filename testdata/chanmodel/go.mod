module example.com/chanmodel

go 1.26
