Creator "igraph version 0.10.2 Tue Dec  1 11:24:20 2026"
Version 1
graph
[
  directed 0
  node
  [
    id 0
    name "worker 0 &amp; co"
  ]
  node
  [
    id 1
    name "worker 1 &amp; co"
  ]
  node
  [
    id 2
    name "worker 2 &amp; co"
  ]
  node
  [
    id 3
    name "worker 3 &amp; co"
  ]
  node
  [
    id 4
    name "worker 4 &amp; co"
  ]
  node
  [
    id 5
    name "worker 5 &amp; co"
  ]
  node
  [
    id 6
    name "worker 6 &amp; co"
  ]
  node
  [
    id 7
    name "worker 7 &amp; co"
  ]
  edge
  [
    source 1
    target 0
    weight 0.25
  ]
  edge
  [
    source 2
    target 1
    weight 0.25
  ]
  edge
  [
    source 3
    target 2
    weight 0.25
  ]
  edge
  [
    source 4
    target 3
    weight 0.25
  ]
  edge
  [
    source 5
    target 4
    weight 0.25
  ]
  edge
  [
    source 6
    target 5
    weight 0.25
  ]
  edge
  [
    source 7
    target 6
    weight 0.25
  ]
  edge
  [
    source 7
    target 0
    weight 0.25
  ]
  edge
  [
    source 4
    target 0
    weight 0.25
  ]
  edge
  [
    source 6
    target 2
    weight 0.25
  ]
]
