module hearth/agent

go 1.22
