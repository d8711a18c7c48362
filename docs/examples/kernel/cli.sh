tvmffi inspect build/libmykernels.so
tvmffi call build/libmykernels.so greet tvmffi
tvmffi call build/libmykernels.so scale_alloc 'f32[[1,2],[3,4]]' 2.5
