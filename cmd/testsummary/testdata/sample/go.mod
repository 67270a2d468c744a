module sample

go 1.25
