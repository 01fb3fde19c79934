graph [
  directed 1
  node [ id 0 label "0" ]
  node [ id 1 label "1" ]
  edge [ source 0 target 1 weight 0.5 ]
  edge [ source 1 target 0 weight 0.5 ]
]
