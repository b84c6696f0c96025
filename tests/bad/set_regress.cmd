regress --set layout.tpp=4
