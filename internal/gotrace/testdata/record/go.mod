module rec

go 1.25
