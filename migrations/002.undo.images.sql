DROP TABLE explanation_images;
