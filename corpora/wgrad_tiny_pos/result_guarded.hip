#include<hip/hip_runtime.h>
typedef __bf16 bf16x4_t __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8_t __attribute__((ext_vector_type(8)));
typedef float f32x16_t __attribute__((ext_vector_type(16)));
struct ConvParams{
int k_per_split;
int64_t dy_stride;
};
struct BlockTile{
int m0;
};
__device__ uint32_t lds_elem_offset(int row,int col,int row_elems){
return(row*row_elems+col)*2u;
}
__device__ void lds_store_transposed(char*lds,int row0,bf16x4_t v){
for(int j=0;j<4;++j){
__bf16*dst=reinterpret_cast<__bf16*>(lds+row0+j);
*dst=v[j];
}
}
__device__ __forceinline__ void load_stage(ConvParams&p,BlockTile&bt,
__bf16*dy,int pos,int vec0,
bf16x4_t(ra)[],bf16x4_t(rb)[]){
for(int i=0;i<8;++i){
int m=bt.m0+vec0+i;
int64_t e=pos*p.dy_stride+m;
ra[i]=*dy+e;
}
for(int i=0;i<6;++i){
int v=i;
rb[i]=1+v;
}
}
__device__ void store_stage(char*lds,int vec0,
bf16x4_t(ra)[],bf16x4_t(rb)[]){
for(int i=0;i<8;++i)
lds_store_transposed(lds,(vec0+i*8)*4,ra[i]);
for(int i=0;i<6;++i)
lds_store_transposed(lds,(vec0+i)*4,rb[i]);
}
__device__ __forceinline__ void compute_stage(char*lds,int wn,int lane,
f32x16_t(acc)[][3]){
int fk=lane/32;
for(int ks=0;ks<2;++ks){
bf16x8_t a[4];
for(int im=0;im<4;++im){
int row=im;
a[im]=*lds+lds_elem_offset(row,fk,32);
}
for(int jn=0;jn<3;++jn){
int col=wn+jn;
bf16x8_t b=*lds+lds_elem_offset(col,ks*16+fk,32);
for(int im=0;im<4;++im)
acc[im][jn]=__builtin_amdgcn_mfma_f32_32x32x16_bf16(a[im],b,acc[im][jn],0,0,0);
}
}
}
__global__ __launch_bounds__(256,2)void wgrad_kernel(ConvParams p,
__bf16*dy,float*dw){
__shared__ __attribute__(())char lds[57344];
int tid=threadIdx.x;
int lane=tid%64;
int wave=tid;
int wn=wave;
BlockTile bt;
int bx=blockIdx.x;
BlockTile t;
t.m0=bx
;
bt=t;
int num_stages=p.k_per_split;
f32x16_t acc[4][3];
for(int im=0;im<4;++im)
for(int jn=0;jn<3;++jn)
for(int e=0;e<16;++e)acc[im][jn]=0.0f;
int p_local=tid;
int vec0=tid;
int pos=p_local;
bf16x4_t ra[8],rb[6];
load_stage(p,bt,dy,0,0,ra,rb);
for(int s=0;s<num_stages;++s){
bool has_next=1<num_stages;
if(has_next){
pos+=32;
load_stage(p,bt,dy,pos,vec0,ra,rb);
}
compute_stage(lds,wn,lane,acc);
store_stage(lds,vec0,ra,rb);
}
for(int im=0;im<4;++im)
for(int jn=0;jn<3;++jn)
for(int j=0;j<16;++j)
atomicAdd(dw,acc[im][jn][j]);
}